<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** No answer came: the connection failed or was lost. The request may be retried as it was. */
class ApiConnectionException extends ApiException
{
}
