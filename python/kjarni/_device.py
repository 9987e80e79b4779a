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
