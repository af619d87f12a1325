<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** 400 or 404: a parameter, an amount, a state that does not allow it, an unknown object. */
class InvalidRequestException extends ApiException
{
}
