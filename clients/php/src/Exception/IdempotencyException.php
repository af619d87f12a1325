<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** 400 or 409: an idempotency key reused for another request, or still running. */
class IdempotencyException extends ApiException
{
}
