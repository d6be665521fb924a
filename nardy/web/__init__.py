"""nardy.web"""
