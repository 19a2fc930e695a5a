#include "replay/bus.h"

void gcr_bus_emit(struct gcr_bus *bus, struct gcr_event *ev)
{
    ev->step = bus->step;
    ev->kernel = bus->kernel;
    for (size_t i = 0; i < bus->nsubs; i++)
        if (bus->subs[i].ops->subscribe & (unsigned)ev->kind)
            bus->subs[i].ops->on_event(bus->subs[i].self, ev);
}
