"""What the providers call: the operators' callbacks (one view for every network) and the card
provider's receipt and notification endpoints."""
