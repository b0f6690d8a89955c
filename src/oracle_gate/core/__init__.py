"""The policy core: classes and floors, write-set lanes, signatures, ledgers, the verdict.

Nothing here imports Pants, so it is tested directly with Hypothesis and shipped verbatim into
the pytest sandbox. Modules import each other relatively so the sandbox copy works under any
package name.
"""
