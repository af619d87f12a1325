"""What every app shares, importing no app: the /v1 machinery, throttles, ids, links, deadlines,
money and the domain events."""
