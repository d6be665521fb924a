"""nardy.calibration"""
