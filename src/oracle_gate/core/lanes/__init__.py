"""Base versus head: the facts of each tree, what a diff changed, its lane, and what each changed
region owes (the adoption baseline, unowned paths, dependencies, region suggestions)."""
