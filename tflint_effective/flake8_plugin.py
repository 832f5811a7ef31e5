"""Kept so that installs made before the package was layered still find the flake8 plugin."""
from .frontends.flake8_plugin import Plugin  # noqa: F401
