"""Everything that talks to users: the CLI, the flake8 plugin, files and notebooks,
configuration, the result cache, parallel runs, the rules' documentation and
the output formats."""
