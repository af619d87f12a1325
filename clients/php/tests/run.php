<?php

// The library's own tests, without PHPUnit (the library needs nothing outside PHP itself):
// `php tests/run.php` runs every test_* function of the tests/*Test.php files and exits 1 when
// one fails. The deliveries of the real service are verified in the repository's tests/clients/.

declare(strict_types=1);

require __DIR__ . '/../autoload.php';

final class AssertionFailed extends \Exception
{
}

function check(bool $condition, string $what): void
{
    if (!$condition) {
        throw new AssertionFailed($what);
    }
}

function same(mixed $expected, mixed $actual, string $what = ''): void
{
    check($expected === $actual, ($what ? "{$what}: " : '') . 'expected ' . var_export($expected, true) . ', got ' . var_export($actual, true));
}

/** @param class-string<\Throwable> $class */
function throws(string $class, callable $code, string $message = ''): void
{
    try {
        $code();
    } catch (\Throwable $error) {
        check($error instanceof $class, 'expected ' . $class . ', got ' . get_class($error) . ': ' . $error->getMessage());
        if ($message !== '') {
            check(str_contains($error->getMessage(), $message), "expected a message with \"{$message}\", got \"{$error->getMessage()}\"");
        }
        return;
    }
    throw new AssertionFailed("expected {$class}, nothing was thrown");
}

$before = get_defined_functions()['user'];
foreach (glob(__DIR__ . '/*Test.php') as $file) {
    require $file;
}
$failed = 0;
$tests = array_values(array_filter(
    array_diff(get_defined_functions()['user'], $before),
    static fn (string $name): bool => str_starts_with($name, 'test_'),
));
foreach ($tests as $number => $test) {
    try {
        $test();
        echo 'ok ' . ($number + 1) . " - {$test}\n";
    } catch (\Throwable $error) {
        $failed++;
        echo 'not ok ' . ($number + 1) . " - {$test}: " . get_class($error) . ': ' . $error->getMessage() . "\n";
    }
}
echo '1..' . count($tests) . "\n";
exit($failed === 0 ? 0 : 1);
