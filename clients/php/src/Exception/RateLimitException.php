<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** 429: too many requests; the Retry-After header (getHeaders()) says when to come back. */
class RateLimitException extends ApiException
{
}
