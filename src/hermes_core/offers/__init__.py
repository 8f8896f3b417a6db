"""What the host offers the servers it connects (client capabilities): elicitation (asking the
user, :mod:`.elicitation`) and roots (the folders it may work in, :mod:`.roots`); sampling is
their sibling :mod:`hermes_core.sampling`.  Below the host core: no import of the host."""
