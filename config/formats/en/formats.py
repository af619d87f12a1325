"""English as read in Kinshasa and Lubumbashi: the day before the month and a 24-hour clock
(`8 Dec 2026, 14:05`), as British English writes it, never the American `12/08/2026 2:05 p.m.`
that a reader used to `08/12/2026` would take for the 12th of August."""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y, H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
MONTH_DAY_FORMAT = "j F"
