"""CRM intake: inbound messages turned into lead cards."""
