<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** No answer came within the timeout. */
class ApiTimeoutException extends ApiConnectionException
{
}
