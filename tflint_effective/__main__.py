from .frontends.cli import run

run()
