"""The grader: sealed answer keys, the diagnoses parser, scoring, feedback and gradebooks.

stdlib + cryptography only, and `scenarios` for the catalog's words: never numpy or textual,
so an instructor can grade a class on a bare server.
"""
