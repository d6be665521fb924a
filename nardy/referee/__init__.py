"""nardy.referee"""
