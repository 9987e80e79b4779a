"""PyCUDA's Device methods over kjarni's Device (``device.properties`` and ``device.attributes``
are kjarni's own): ``total_memory()``, ``compute_capability()``, ``pci_bus_id()``,
``get_attributes()``, ``get_attribute(name)``."""

from . import _kjarni
from .errors import UnsupportedError

Device = _kjarni.Device
DeviceProperties = _kjarni.DeviceProperties


def _total_memory(self):
    """Global memory in bytes (PyCUDA's Device.total_memory())."""
    return self.properties.total_memory


def _compute_capability(self):
    """(major, minor) (PyCUDA's Device.compute_capability()); UnsupportedError for a device that
    has none (not NVIDIA)."""
    cc = self.properties.compute_capability
    if cc is None:
        raise UnsupportedError(f"the device '{self.name}' has no compute capability (it is not an NVIDIA device)")
    return cc


def _pci_bus_id(self):
    """"0000:65:00.0"-style (PyCUDA's Device.pci_bus_id()), or None where the API does not say."""
    return self.properties.pci_bus_id


def _get_attributes(self):
    """Every raw attribute by the API's name (PyCUDA's Device.get_attributes(), keyed by the name
    instead of the enum)."""
    return self.attributes


def _get_attribute(self, name):
    """One raw attribute by the API's name ("MAX_THREADS_PER_BLOCK", "CL_DEVICE_MAX_COMPUTE_UNITS"),
    or None (PyCUDA's get_attribute, PyOpenCL's get_info)."""
    return self.attribute(name)


Device.total_memory = _total_memory
Device.compute_capability = _compute_capability
Device.pci_bus_id = _pci_bus_id
Device.get_attributes = _get_attributes
Device.get_attribute = _get_attribute


# ---- grunnur's names for APIs, platforms and devices ----------------------------------------------

def _platform_shortcut(self):
    """``"<api>,<platform index>"`` (grunnur's Platform.shortcut): ``"opencl,0"``."""
    return f"{self.api.shortcut},{self.api.platforms.index(self)}"


def _device_shortcut(self):
    """``"<api>,<platform index>,<device index>"`` (grunnur's Device.shortcut): ``"opencl,0,0"``."""
    platform = self.platform
    return f"{platform.shortcut},{platform.devices.index(self)}"


_kjarni.Platform.shortcut = property(_platform_shortcut)
Device.shortcut = property(_device_shortcut)
# A BoundDevice answers for the device it is (grunnur's BoundDevice is a Device).
_kjarni.BoundDevice.platform = property(lambda self: self.device.platform,
                                        doc="The platform of the device (grunnur's BoundDevice.platform).")
_kjarni.BoundDevice.shortcut = property(lambda self: self.device.shortcut,
                                        doc="The device's shortcut, ``\"opencl,0,0\"``.")

# str() as grunnur's (repr() stays kjarni's, which names the platform or device).
_kjarni.APIID.__str__ = lambda self: f"id({self.shortcut})"
_kjarni.API.__str__ = lambda self: f"api({self.shortcut})"
_kjarni.Platform.__str__ = lambda self: f"platform({self.shortcut})"
Device.__str__ = lambda self: f"device({self.shortcut})"
_kjarni.BoundDevice.__str__ = lambda self: f"device({self.shortcut}) in {self.context!r}"


def _compare_only_with(cls):
    """``==`` and ``!=`` with an object of another type are False and True (Python's identity
    fallback, as grunnur's classes give), where the binding raised TypeError."""
    for name in ("__eq__", "__ne__"):
        original = vars(cls).get(name)
        if original is None:
            continue

        def compare(self, other, _original=original):
            if not isinstance(other, cls):
                return NotImplemented
            return _original(self, other)

        compare.__name__ = name
        setattr(cls, name, compare)


for _cls in (_kjarni.APIID, _kjarni.API, _kjarni.Platform, Device, _kjarni.BoundDevice, _kjarni.Context):
    _compare_only_with(_cls)
