"""nardy.device"""
