<?php

// For use without Composer: `require 'path/to/congopay-php/autoload.php';` loads the library's
// classes as they are needed (PSR-4: Congopay\Foo\Bar is src/Foo/Bar.php).

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'Congopay\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
