S Do one who suffered from this disease keep it a secret of infrom their relatives ?
A 0 1|||SVA|||Does|||REQUIRED|||-NONE-|||0
A 3 4|||Vt|||suffers|||REQUIRED|||-NONE-|||0
A 11 12|||Trans|||or|||REQUIRED|||-NONE-|||0
A 12 13|||Mec|||inform|||REQUIRED|||-NONE-|||0
A 0 1|||SVA|||Does|||REQUIRED|||-NONE-|||1
A 1 2|||Pform|||someone|||REQUIRED|||-NONE-|||1
A 3 4|||Vt|||suffers|||REQUIRED|||-NONE-|||1
A 11 12|||Mec|||or|||REQUIRED|||-NONE-|||1
A 12 13|||Mec|||inform|||REQUIRED|||-NONE-|||1

S By doing so , one will feel less stressful in facing such disorder risk .
A 8 9|||Wform|||stressed|||REQUIRED|||-NONE-|||0
A 12 14|||WOinc|||risk of disorder|||REQUIRED|||-NONE-|||0
A 8 9|||Wci|||stressed|||REQUIRED|||-NONE-|||1
A 12 12|||ArtOrDet|||a|||REQUIRED|||-NONE-|||1
A 12 13|||Wci|||health|||REQUIRED|||-NONE-|||1

S Without the support of loved ones , patients ' life is no better than death .
A 9 10|||Nn|||lives|||REQUIRED|||-NONE-|||0
A 10 11|||SVA|||are|||REQUIRED|||-NONE-|||0

S Therefore I believe the parents have their right to know the healthiness of their child .
A 6 7|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
A 11 12|||Wform|||health|||REQUIRED|||-NONE-|||0
A 1 1|||Mec|||,|||REQUIRED|||-NONE-|||1
A 6 7|||ArtOrDet|||the|||REQUIRED|||-NONE-|||1
A 10 10|||Prep|||about|||REQUIRED|||-NONE-|||1

S If person has a disease C that might be a result of gene A .
A 1 1|||ArtOrDet|||a|||REQUIRED|||-NONE-|||0

S He or she might even be adviced not to get married or have children .
A 6 7|||Mec|||advised|||REQUIRED|||-NONE-|||0

S So for the consideration for the other family members , the relatives should be informed .
A 4 5|||Prep|||of|||REQUIRED|||-NONE-|||0
A 1 1|||Mec|||,|||REQUIRED|||-NONE-|||1
A 3 4|||Wci|||sake|||REQUIRED|||-NONE-|||1
A 4 5|||Prep|||of|||REQUIRED|||-NONE-|||1

S It is becoming even more convinient than talking throught the phone since it is free .
A 5 6|||Mec|||convenient|||REQUIRED|||-NONE-|||0
A 8 9|||Wci|||via|||REQUIRED|||-NONE-|||0
A 5 6|||Mec|||convenient|||REQUIRED|||-NONE-|||1
A 8 9|||Prep|||on|||REQUIRED|||-NONE-|||1
A 11 11|||Mec|||,|||REQUIRED|||-NONE-|||1

