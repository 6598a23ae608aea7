"""Settings for the whole suite.

Hypothesis fails an example that takes longer than 200 ms by default: a test of speed, which on CI's shared
2-core machines fails at random. Speed is measured in benchmarks/, so property tests run without a deadline.
"""

from hypothesis import settings

settings.register_profile("fakekube", deadline=None)
settings.load_profile("fakekube")
