"""What a PINN run gives: predictions (:mod:`.predict`), errors against the reference (:mod:`.evaluation`,
:mod:`.references`), figures (:mod:`.figures`, :mod:`.plots`), ``fields.h5`` (:mod:`.fields_h5`), the exported
model (:mod:`.export`) and what the features add to the rows and the summary (:mod:`.report`)."""
