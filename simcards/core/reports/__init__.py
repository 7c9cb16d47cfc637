"""Generated reports: every figure and page under ``reports/`` is written by this package."""
