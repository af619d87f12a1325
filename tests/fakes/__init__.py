"""Outside parties, faked at the HTTP boundary: the mobile money operators and CyberSource (each a
local server with the provider's rules and quirks), operators that cannot be reached, and a
merchant's webhook receiver."""
