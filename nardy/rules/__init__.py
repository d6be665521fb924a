"""nardy.rules"""
