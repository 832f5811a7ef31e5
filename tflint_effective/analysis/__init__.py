"""What is true of one parsed file: names, scopes, execution modes, kinds of values. No I/O.

Rules read it through ``context.Context`` only; ``tf_api`` holds every table of
TensorFlow names.
"""
