<?php

declare(strict_types=1);

namespace Congopay\Exception;

/** 403: the account may not do this (live mode not approved, card rail off). */
class PermissionException extends ApiException
{
}
