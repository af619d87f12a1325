<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** 5xx: the service or an operator behind it failed; the request may be retried as it was. */
class ApiServerException extends ApiException
{
}
