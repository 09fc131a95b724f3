"""Prints everything a client can read about the snapsize application and its slider."""
import pyatspi
from gi.repository import Atspi
from atspi_common import apps_named, emit, find_slider, state_names

app, slider = find_slider()
value = slider.queryValue()
action = slider.queryAction()
component = slider.queryComponent()


def extents(coordinates):
    """The extents, or the error the slider answers (it has no place on the screen)."""
    try:
        return list(component.getExtents(coordinates))
    except Exception as error:
        return {"error": str(error)}


def describe(obj):
    """Role, name, states and parent of obj, and the same for its children."""
    return {"roleName": obj.getRoleName(), "name": obj.name, "states": state_names(obj),
            "indexInParent": obj.getIndexInParent(), "parentRole": obj.parent.getRoleName(),
            "children": [describe(obj.getChildAtIndex(i)) for i in range(obj.childCount)]}


emit({
    "apps": len(apps_named("snapsize")),
    "app": {
        "name": app.name,
        "role": int(app.getRole()),
        "roleName": app.getRoleName(),
        "childCount": app.childCount,
        "toolkitName": app.get_toolkit_name(),
        "version": app.get_toolkit_version(),
        "atspiVersion": app.get_atspi_version(),
        "id": app.get_id(),
        "parentRole": app.parent.getRoleName() if app.parent is not None else None,
    },
    "frame": describe(app.getChildAtIndex(0)),
    "statusBar": describe(app.getChildAtIndex(1)) if app.childCount > 1 else None,
    "slider": {
        "name": slider.name,
        "description": slider.description,
        "role": int(slider.getRole()),
        "roleName": slider.getRoleName(),
        "states": state_names(slider),
        "interfaces": sorted(pyatspi.listInterfaces(slider)),
        "attributes": dict(a.split(":", 1) for a in slider.getAttributes()),
        "indexInParent": slider.getIndexInParent(),
        "parentName": slider.parent.name,
        "childCount": slider.childCount,
        "value": {
            "minimum": value.minimumValue,
            "maximum": value.maximumValue,
            "increment": value.minimumIncrement,
            "current": value.currentValue,
            "text": Atspi.Value.get_text(slider),
        },
        "actions": [
            {"name": action.getName(i), "localizedName": action.getLocalizedName(i),
             "description": action.getDescription(i)}
            for i in range(action.nActions)
        ],
        "extents": extents(pyatspi.DESKTOP_COORDS),
        "windowExtents": extents(pyatspi.WINDOW_COORDS),
        "size": list(component.getSize()),
    },
})
