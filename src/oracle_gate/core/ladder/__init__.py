"""The ranks' checks that need no process: locked-fixture digests (R1), tautologies and code that
knows it is under test (the oracles' own honesty), flake markers and freeze ledgers (R4), and the
mutants R3 runs."""
