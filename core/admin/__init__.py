"""What every app's staff pages share: actions by permission and their confirmation pages, public
ids in the address, the merchant column, how values are shown, read-only pages."""
