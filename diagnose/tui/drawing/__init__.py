"""What the screen shows, computed without Textual, so each piece is testable as plain data:
`state` (the runs' records and what the student is looking at), `frames` (what one panel draws
now) and `scale` (values to cells: windows, scales, ticks).
"""
