#!/bin/sh
echo smoke
pmcbench --version
pmcbench list 2>&1 | head -20
pmcbench run -r 3 -e 'cycles,instructions' --format csv -- pmu-work loop 1000000
pmcbench run -r 3 -e 'cycles:u,instructions:u' --format csv -- pmu-work loop 1000000
pmu-bench -e instructions:u --min-time 0.01 2>&1 | tail
