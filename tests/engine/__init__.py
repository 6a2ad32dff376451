"""Tests of `diagnose.engine`: layers, model, optimizer, corpus, instruments and training."""
