"""nardy.hints"""
