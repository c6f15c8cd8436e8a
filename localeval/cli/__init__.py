"""Command line interface: `localeval score`, `localeval models`."""
