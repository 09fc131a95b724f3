# Sourced as `listener=PATH; . scripts/accessibility-stack.sh`, after scripts/private-bus.sh, by the
# measuring scripts that need the daemon's slider (make profile's daemon-a11y mode, link-order.sh's
# second pass): an accessibility bus (at-spi-bus-launcher) on the private session bus, exported as
# AT_SPI_BUS_ADDRESS; its registry (at-spi2-registryd); and a screen reader's view of the slider, a
# libatspi listener for its value events ($listener, Benchmarks/listener/listener.c). Each is added
# to `pids`, which private-bus.sh's EXIT trap stops.
/usr/libexec/at-spi-bus-launcher --launch-immediately --a11y=1 >"$work/a11y.log" 2>&1 </dev/null &
pids="$! $pids"
for _ in $(seq 50); do
    AT_SPI_BUS_ADDRESS=$(gdbus call --session -d org.a11y.Bus -o /org/a11y/bus -m org.a11y.Bus.GetAddress \
        2>/dev/null | sed -n "s/^('\(.*\)',)$/\1/p") && [ -n "$AT_SPI_BUS_ADDRESS" ] && break
    sleep 0.1
done
export AT_SPI_BUS_ADDRESS
/usr/libexec/at-spi2-registryd >"$work/registry.log" 2>&1 </dev/null &
pids="$! $pids"
sleep 0.3
"$listener" 1 >"$work/events" 2>&1 &
pids="$! $pids"
sleep 0.3
