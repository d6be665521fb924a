"""nardy.vision"""
