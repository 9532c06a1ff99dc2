"""What every room of the briefing app stands on."""
