<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** A webhook delivery that is not proven to come from the service, or is too old. */
class WebhookVerificationException extends CongopayException
{
}
