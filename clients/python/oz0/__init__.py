"""The name the platform's documentation gives the Python SDK: ``from oz0 import fit``."""
