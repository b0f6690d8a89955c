"""Python source as data: symbols, what changed between two versions, newer syntax on Pants' parser."""
