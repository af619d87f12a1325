"""The dashboard's pages of a merchant's money in one mode: payments (search, timeline, refund),
the balance and its ledger, payouts, and the developers' page (API keys, the webhook endpoint,
events). Each action goes through the service the API uses, with its rules and errors."""
