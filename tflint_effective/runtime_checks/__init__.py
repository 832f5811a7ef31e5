"""Corrected TensorFlow ops (work in progress)."""
