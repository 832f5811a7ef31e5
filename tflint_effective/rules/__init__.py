"""One module per rule, named after the bad pattern; found by walking this package."""
