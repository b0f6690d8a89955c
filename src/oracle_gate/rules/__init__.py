"""The Pants shell: rules that gather facts from the build graph and hand them to `core`."""
