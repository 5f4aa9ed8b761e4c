import pytest

from wearbench._errors import WearbenchError
from wearbench.sim.scenario import cycling_intensity, running_intensity


def test_running_hand_computed() -> None:
    # 8 km/h = 133.33 m/min -> VO2 = 26.667 + 3.5; reserve (VO2 - 3.5) / 36.5 = 0.73059
    assert running_intensity(8.0) == pytest.approx(26.6667 / 36.5, rel=1e-4)
    # 6 km/h at 5 % grade: v = 100 m/min -> 20 + 4.5 = 24.5 above rest -> 24.5 / 36.5
    assert running_intensity(6.0, 5.0) == pytest.approx(24.5 / 36.5)
    assert running_intensity(0.0) == 0.0
    assert running_intensity(30.0) == 1.0  # clipped


def test_cycling_hand_computed() -> None:
    # 100 W = 612 kg*m/min at 70 kg: 1.8 * 612 / 70 = 15.737 + 3.5 unloaded -> 19.237 / 36.5
    assert cycling_intensity(100.0, 70.0) == pytest.approx((1.8 * 612 / 70 + 3.5) / 36.5)
    assert cycling_intensity(0.0, 70.0) == pytest.approx(3.5 / 36.5)
    assert cycling_intensity(100.0, 70.0, vo2max=60.0) < cycling_intensity(100.0, 70.0)


@pytest.mark.parametrize("call", [lambda: running_intensity(-1.0), lambda: cycling_intensity(50.0, 0.0),
                                  lambda: running_intensity(8.0, vo2max=3.0)])  # fmt: skip
def test_bad_input_is_refused(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(WearbenchError):
        call()
