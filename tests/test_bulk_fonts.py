"""`bulk` renders a seed only with the numeral fonts every seed is drawn in (reader.synth.textures):
the same seed on a machine with fewer fonts draws other dice, and a look taught on them learns fewer
numerals (session 79: 4 fonts of 20, past a warning). It says which packages to install."""

import pytest


def test_bulk_refuses_to_draw_a_seed_in_fewer_fonts_than_every_seed_is_drawn_in(monkeypatch, capsys):
    # a machine without the Debian font packages: the seed's numerals would be drawn in 4 fonts of 20
    import reader.synth.textures as textures
    from reader.synth.bulk import _run

    monkeypatch.setattr(textures, "fonts", lambda more=False, thin=False: ("a.ttf", "b.ttf", "c.ttf", "d.ttf"))
    with pytest.raises(SystemExit):
        _run(["crops", "--out", "/nonexistent", "--count", "1", "--mix", "d6-numerals"])
    err = capsys.readouterr().err
    assert f"4 of the {textures.FONTS_RENDERED} numeral fonts" in err and "fonts-dejavu" in err
    assert "--fewer-fonts" in err
