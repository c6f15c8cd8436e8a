"""Run at start-up by every Python process the test suite starts (tests/conftest.py puts
this folder first on PYTHONPATH): no subprocess of a test may reach the network either."""

import localeval_netguard

localeval_netguard.install()
