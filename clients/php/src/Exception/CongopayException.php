<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** Every exception of this library. */
class CongopayException extends \RuntimeException
{
}
