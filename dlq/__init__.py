"""Dead letters and the record of every structured model call."""
