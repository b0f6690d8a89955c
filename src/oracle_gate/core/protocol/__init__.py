"""What the pytest sandbox and the gate share: the results file, failure signatures, the mutant
payload and the clean room's protocol. The recorder ships these modules verbatim, so they import
nothing outside this package."""
