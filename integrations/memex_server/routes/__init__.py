"""The API's routes, one module per audience: health (anyone), reading (either
credential), memory (an agent key, as ``mx.agent(user)``), admin (the operator)."""
