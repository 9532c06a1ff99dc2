"""The studio's own data: its rate card, portfolio and production calendar."""
